package dev.dispatcher.boot.shop;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.math.BigDecimal;

/** The application's own entity, in its own table (its V1 migration). */
@Entity
public class PurchaseOrder {

    @Id
    private String id;
    private BigDecimal amount;

    protected PurchaseOrder() {
    }

    public PurchaseOrder(String id, BigDecimal amount) {
        this.id = id;
        this.amount = amount;
    }

    public String getId() {
        return id;
    }

    public BigDecimal getAmount() {
        return amount;
    }
}
