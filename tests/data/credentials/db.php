<?php
$pdo = new PDO('mysql:host=127.0.0.1;dbname=shop', 'shop_app', 'Winter*Valley22');
$legacy = mysqli_connect('legacy-db', 'reports', 'qKWFV30gg1yh7HIUPFKLxl', 'reports_archive');

$ch = curl_init('https://billing.example.com/export');
curl_setopt($ch, CURLOPT_USERPWD, 'exporter:E7aMRuW0=T?W7%Twt6wh');
curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
curl_setopt($ch, CURLOPT_PROXYPASSWORD, getenv('PROXY_PASSWORD'));
