<?php
// Shop configuration: database and mail relay.
$host = 'mysql.example-shop.internal';
$dbname = 'shop';
$username = 'shop_web';
$password = 'Zt8kQ3wLx6Vn';

$config = array(
    'smtp_host' => 'smtp.example-shop.com',
    'smtp_user' => 'noreply@example-shop.com',
    'smtp_pass' => 'Hy4nR9mKc2Wq',
    'items_per_page' => 25,
);

$pdo = new PDO("mysql:host=$host;dbname=$dbname;charset=utf8mb4", $username, $password);
