/* Connection settings for the reporting daemon. */
#ifndef REPORTING_PASSWORDS_H
#define REPORTING_PASSWORDS_H

/* SNMPv3 user security model: the protocol constants come from net-snmp. */
#define REPORTING_AUTH_PROTO     usmHMACSHA1AuthProtocol
#define REPORTING_PRIV_PROTO     usmAESPrivProtocol
#define REPORTING_NOAUTH_PROTO   usmNoAuthProtocol

static const char db_user[] = "reporting";
static const char db_password[] = "jasmine_raven_192"; /* prod */
static const char admin_password[] = "eagle#river#177";
static const char *password_source = "environment";

#endif
