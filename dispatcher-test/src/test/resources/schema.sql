-- the shop's own table (ShopApplication), created at its start by spring.sql.init
CREATE TABLE IF NOT EXISTS shop_order (id text PRIMARY KEY, status text NOT NULL);
