<?php
/**
 * The base configuration for WordPress
 *
 * @package WordPress
 */

// ** Database settings - You can get this info from your web host ** //
/** The name of the database for WordPress */
define( 'DB_NAME', 'wp_blog' );

/** Database username */
define( 'DB_USER', 'wp_blog_user' );

/** Database password */
define( 'DB_PASSWORD', 'Qm7#tVx2Lp9z' );

/** Database hostname */
define( 'DB_HOST', 'localhost' );

define( 'DB_CHARSET', 'utf8mb4' );

/**#@+
 * Authentication unique keys and salts.
 */
define( 'AUTH_KEY',         'p#K8v|Lz2@Qw!m7R^x4T&n9B*c3V(j6Y' );
define( 'SECURE_AUTH_KEY',  'r5W$e8T%y1U!i4O@p7A#s0D^f3G&h6J*' );

$table_prefix = 'wp_';

define( 'WP_DEBUG', false );

if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}

require_once ABSPATH . 'wp-settings.php';
