package dev.dispatcher.app.config;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcProperties;
import org.springframework.core.env.Environment;

/**
 * Behind a transaction pooler ({@code dispatcher.database.pooler=transaction}): removes from {@code
 * spring.r2dbc.properties} the driver options that r2dbc-postgresql sends as startup parameters, {@code
 * statementTimeout} ({@code statement_timeout}) and {@code lockWaitTimeout} ({@code lock_timeout}), before Boot
 * builds the connection options from them. PgBouncer closes a connection whose startup packet holds a parameter it
 * does not track, and a session setting would not outlive a transaction anyway; the database gives them to the user
 * instead ({@code ALTER ROLE ... SET}), which {@link PoolerSessionCheck} compares at start with the values removed
 * here. Does nothing on a direct connection.
 */
final class PoolerStartupParameters implements BeanPostProcessor {

    /** The driver options that become startup parameters, and the server setting each one sets. */
    static final Map<String, String> SENT_AT_STARTUP = Map.of(
            "statementTimeout", "statement_timeout",
            "lockWaitTimeout", "lock_timeout");

    private final boolean pooled;
    private final Map<String, String> removed = new LinkedHashMap<>();

    PoolerStartupParameters(Environment environment) {
        this.pooled = Binder.get(environment).bind(DatabaseProperties.PREFIX + ".pooler", DatabaseProperties.Pooler.class)
                .map(pooler -> pooler == DatabaseProperties.Pooler.TRANSACTION).orElse(false);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (pooled && bean instanceof R2dbcProperties r2dbc) {
            SENT_AT_STARTUP.forEach((option, setting) -> {
                String value = r2dbc.getProperties().remove(option);
                if (value != null) {
                    removed.put(setting, value);
                }
            });
        }
        return bean;
    }

    /** The server settings taken out of the startup parameters, with the values configured for them. */
    Map<String, String> removed() {
        return Map.copyOf(removed);
    }
}
