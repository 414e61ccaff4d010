-- Accounts for the reporting replica.
CREATE USER 'report'@'%' IDENTIFIED BY 'KDHA554#1so7j6';
GRANT SELECT ON reports.* TO 'report'@'%';
GRANT ALL PRIVILEGES ON app.* TO 'master'@'localhost' IDENTIFIED BY 'Kp4TxQ8m@7.VbnRw';
INSERT INTO contacts (team, email) VALUES ('dba', 'dba-oncall@example.org');
CREATE USER etl WITH PASSWORD 'WKFQ769#33do08';
-- Template for new environments:
CREATE USER 'app'@'localhost' IDENTIFIED BY 'changeme';
INSERT INTO releases (tag, sha) VALUES ('v1.9.0', 'ce139b0afb954f748f1db9d9ca4481cdd8adcfcc');
