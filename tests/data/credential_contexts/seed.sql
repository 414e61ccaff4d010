-- Seed data for the staging stack.
-- api_key: 1IMcYdYwlvy2OiRbfulj823tla9Y18TpzDLRManj
-- run as: mysql -u seeder -pGSOI661!r7b28l -h db.staging.internal app
CREATE TABLE api_credentials (owner VARCHAR(64), api_token VARCHAR(64));
INSERT INTO api_credentials (owner, api_token) VALUES ('billing', 'rve8Bj6HPRFlVYQDHeuYkbMN');
INSERT INTO releases (tag, build_id) VALUES ('v2.4.1', 'ea56cb22-57b4-4156-8f37-a43d01303688');
