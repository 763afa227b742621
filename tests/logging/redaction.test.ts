import { expect, test } from 'bun:test';
import { createLogger } from '../../src/lib/logger.ts';
import { generateKey } from '../../src/modules/api-keys/key-format.ts';

/** Every log line goes through the redaction: fields named like secrets, and secret-shaped text anywhere. */
test('keys, tokens, passwords, webhook secrets and URL credentials never reach a log line', () => {
  const lines: string[] = [];
  const log = createLogger('debug', { service: 'test' }, (line) => lines.push(line));
  const key = generateKey();
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1LTEifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
  log.info('request', { headers: { authorization: `Bearer ${jwt}`, cookie: 'sid=abc123456' }, password: 'hunter2-hunter2' });
  log.warn(`retrying with ${key}`, { webhookSecret: 'whsec_c2VjcmV0LXNpZ25pbmcta2V5', smtp: 'smtps://mailer:pa55word@smtp.example.com' });
  log.error('failed', { error: new Error(`connect to postgres://app:db-pa55@db.internal/app refused; token ${jwt}`) });
  log.child({ apiKey: key }).info('child');
  const text = lines.join('\n');
  for (const secret of [key.slice(3), jwt.split('.')[2]!, 'abc123456', 'hunter2-hunter2', 'c2VjcmV0LXNpZ25pbmcta2V5', 'pa55word', 'db-pa55']) {
    expect(text).not.toContain(secret);
  }
  // What an operator needs stays: the message, the error's name and where it came from.
  expect(JSON.parse(lines[2]!)).toMatchObject({
    level: 'error',
    msg: 'failed',
    error: { name: 'Error', message: expect.stringContaining('postgres://app:[REDACTED]@db.internal') },
  });
  expect(lines).toHaveLength(4);
});

test("what an operator needs to diagnose stays: an error's code is not taken for a secret", () => {
  const lines: string[] = [];
  const error = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
  createLogger('debug', {}, (line) => lines.push(line)).error('request failed', { error, status: 503 });
  expect(JSON.parse(lines[0]!).error).toMatchObject({ code: '57P01', message: 'terminating connection due to administrator command' });
});
