/** What `APP_ENV=production` needs besides a database: a token verifier, SMTP and real secrets (none of them reached in tests). */
export const PRODUCTION_SETTINGS = {
  APP_ENV: 'production',
  SMTP_URL: 'smtp://127.0.0.1:2525',
  OAUTH_JWKS_URL: 'https://id.platform.test/jwks',
  OAUTH_ISSUER: 'https://id.platform.test',
  OAUTH_AUDIENCE: 'marketplace',
  OAUTH_ALLOWED_CLIENTS: 'platform-web',
  API_KEY_SECRETS: 'k1:0123456789abcdef0123456789abcdef',
  WEBHOOK_ENCRYPTION_KEYS: 'w1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
};
