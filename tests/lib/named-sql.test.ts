import { expect, test } from 'bun:test';
import { namedSql } from '../../src/lib/named-sql.ts';

test('named parameters become numbered ones; a name used twice is one parameter', () => {
  expect(namedSql('select * from apps where slug = :slug or name = :name or lower(slug) = :slug', { slug: 'a', name: 'b' })).toEqual({
    text: 'select * from apps where slug = $1 or name = $2 or lower(slug) = $1',
    values: ['a', 'b'],
  });
});

test('casts and quoted literals are left alone', () => {
  const compiled = namedSql(`select :at::timestamptz, to_char(now(), 'HH24:MI:SS'), 'it''s :not' || :x`, { at: 't', x: 1 });
  expect(compiled).toEqual({ text: `select $1::timestamptz, to_char(now(), 'HH24:MI:SS'), 'it''s :not' || $2`, values: ['t', 1] });
});

test('a parameter without a value is a programming error, not a silent null', () => {
  expect(() => namedSql('select :missing', {})).toThrow(':missing');
});

test('a text compiled before takes each call its own values, and still refuses a missing one', () => {
  const text = 'select * from apps where slug = :slug and category = :category';
  expect(namedSql(text, { slug: 'a', category: 'X' }).values).toEqual(['a', 'X']);
  expect(namedSql(text, { category: 'Y', slug: 'b' })).toEqual({ text: 'select * from apps where slug = $1 and category = $2', values: ['b', 'Y'] });
  expect(() => namedSql(text, { slug: 'c' })).toThrow(':category');
});
