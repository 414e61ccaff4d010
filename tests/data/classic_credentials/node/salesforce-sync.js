'use strict';

const jsforce = require('jsforce');

const SF_LOGIN_URL = 'https://login.salesforce.com';
const SF_USERNAME = 'integration@acme-corp.example';
const SF_PASSWORD = 'Bk7wQz3nLx9V';
const SF_SECURITY_TOKEN = 'aT4kR8mZq2Wx6Ns0Vc5Lh9Pd';

async function syncAccounts() {
  const conn = new jsforce.Connection({ loginUrl: SF_LOGIN_URL });
  await conn.login(SF_USERNAME, SF_PASSWORD + SF_SECURITY_TOKEN);
  const result = await conn.query('SELECT Id, Name FROM Account LIMIT 200');
  return result.records;
}

const oauth2 = new jsforce.OAuth2({
  clientId: '3MVG9A2kN8BdjA4LrWzMq7Yx5Tn2Vc8Hj6Kp1Rs4Du9Gf3Xe0Ql5Zb7Wm2Nc',
  clientSecret: 'E8F2A7C4D9B1635F0A2E7D4C8B9F1A3E6D2C7B5A9F4E1D8C3B6A0F7E2D5C9B4A',
  redirectUri: 'https://sync.acme-corp.example/oauth/callback',
});

module.exports = { syncAccounts, oauth2 };
