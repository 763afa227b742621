import { expect, test } from 'bun:test';
import { editDistance } from '../../src/lib/edit-distance.ts';

test.each([
  ['recipe', 'recipe', 0],
  ['recpe', 'recipe', 1],
  ['reciipe', 'recipe', 1],
  ['recipw', 'recipe', 1],
  ['recpie', 'recipe', 1],
  ['brigde', 'bridge', 1],
  ['tsk', 'task', 1],
  ['xylophone', 'phone', 4],
  ['', 'abc', 3],
])('%s → %s: %d', (a, b, expected) => {
  expect(editDistance(a, b)).toBe(expected);
});

test('stops early past the bound', () => {
  expect(editDistance('xylophone', 'telephone', 1)).toBe(2);
  expect(editDistance('a', 'abcdef', 1)).toBe(2);
});
