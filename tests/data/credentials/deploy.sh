#!/bin/sh
set -eu
mysqldump -u backup -pZFFZ341%7dwtit --single-transaction shop > /backup/shop.sql
curl -fsS -u admin:GXAR400#mkmsml https://nexus.internal/service/rest/v1/status
./bin/migrate --password YJRA915@8m2g7a --host db.internal
./bin/seed --password=UEZM874@wy07br
export API_TOKEN=b7jFW2xSg91RYBJz9MxWe16iwdogBfZd1a7p
export DB_PASSWORD="${DB_PASSWORD:?set it}"
./bin/sync --password "$SYNC_PASSWORD"
openssl pkcs12 -export -in shop.crt -inkey shop.key -passout pass:TQmo57+Lw3xE -out shop.p12
openssl rsa -in shop.key -passin env:SHOP_KEY_PASSPHRASE -noout
echo "0307f6eada7c2a1b493f480673fdacaacfa6b27ac84e88ad33f5b48ca9bbae25  shop.tar.gz" | sha256sum -c -
