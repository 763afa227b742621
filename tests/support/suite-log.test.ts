import { expect, test } from 'bun:test';
import { findLeaks } from './suite-log.ts';

test('the end-of-run search finds every secret anywhere in a line, once, with the first line that has it', () => {
  const lines = [
    'GET /api/dev/me 200',
    '{"msg":"request","auth":"Bearer abcdefgh12345678"}',
    'prefix-zzzzzzzzzz-suffix and abcdefgh12345678 again',
    'zzzzzzzzz',
  ];
  const leaks = findLeaks(lines, ['abcdefgh12345678', 'abcdefgh99999999', 'zzzzzzzzzz', 'notthere1']);
  expect(leaks).toEqual([
    { secret: 'abcdefgh12345678', line: lines[1]! },
    { secret: 'zzzzzzzzzz', line: lines[2]! },
  ]);
  expect(findLeaks(lines, [])).toEqual([]);
});
