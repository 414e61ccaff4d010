-- Seed the key-value settings table for the staging stack.
CREATE TABLE IF NOT EXISTS settings (name VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL);

INSERT INTO settings (name, value) VALUES ('site_title', 'Staging');
UPDATE settings SET value = '99b60695-a17c-4f95-b940-26f0418b45d2' WHERE name = 'secret_token';
UPDATE settings SET value = '4b66101d-2306-4f45-80cf-e3fb926b30f2' WHERE name = 'build_id';
UPDATE settings SET value = '3f9c1e07b2d84a6f95e0c7a1d4b8e263' WHERE name = 'commit';
UPDATE settings SET value = 'https://internal.example.org/v1/items' WHERE name = 'items_url';
