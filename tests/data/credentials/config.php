<?php
define('DB_NAME', 'shop');
define('DB_PASSWORD', 'OJRJ300#u5z9ul');
define('AUTH_KEY', 'put your unique phrase here');

return [
    'mailer' => [
        'username' => 'noreply@example.com',
        'password' => '6iZeAifNvyauDrwetvvbgvBprmdAin7X',
    ],
];
