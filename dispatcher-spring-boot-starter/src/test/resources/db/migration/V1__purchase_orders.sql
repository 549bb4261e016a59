-- The test application's own migration, in Flyway's default location: its V1, beside Dispatcher's V1 and V2.
CREATE TABLE purchase_order (
    id     text    PRIMARY KEY,
    amount numeric NOT NULL
);
