/**
 * The manifest reference in docs/publishing.md, written from the schema itself (between the
 * markers below) by `bun run publisher:generate`, so the documentation cannot drift either.
 */
export const REFERENCE_START = '<!-- manifest-reference:start (generated from /api/schemas/listing.json) -->';
export const REFERENCE_END = '<!-- manifest-reference:end -->';

interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  'x-expected'?: string;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}

/** A property's type in words: `string`, `string or null`, `PRODUCTIVITY, UTILITIES, …`, `list of objects`. */
function typeOf(schema: JsonSchema): string {
  if (schema.anyOf) return [...new Set(schema.anyOf.map(typeOf))].join(' or ');
  if (schema.enum) return `one of ${schema.enum.map((value) => `\`${String(value)}\``).join(', ')}`;
  if (schema.type === 'array')
    return `list of ${schema.items ? typeOf(schema.items) : 'values'}${schema.maxItems ? ` (at most ${schema.maxItems})` : ''}`;
  if (schema.type === 'object' && schema.properties) {
    const fields = Object.keys(schema.properties).map((key) => (schema.required?.includes(key) ? `${key}` : `${key}?`));
    return `object {${fields.join(', ')}}`;
  }
  return schema.type ?? 'any';
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const sentence = (text: string) => (/[.!?)]$/.test(text) ? text : `${text}.`);

export function manifestReference(schema: JsonSchema): string {
  const rows = Object.entries(schema.properties ?? {}).map(([field, property]) => {
    const notes = [property.description, property['x-expected'] ? `Must be ${property['x-expected']}` : undefined]
      .filter((text): text is string => Boolean(text))
      .map(sentence)
      .join(' ');
    return `| \`${field}\` | ${schema.required?.includes(field) ? 'yes' : 'no'} | ${cell(typeOf(property))} | ${cell(notes)} |`;
  });
  return [REFERENCE_START, '', '| field | required | type | notes |', '|---|---|---|---|', ...rows, '', REFERENCE_END].join('\n');
}

/** The document with its reference section replaced by the one the schema gives. */
export function withReference(document: string, schema: JsonSchema): string {
  const start = document.indexOf(REFERENCE_START);
  const end = document.indexOf(REFERENCE_END);
  if (start < 0 || end < start) throw new Error('docs/publishing.md has lost its manifest-reference markers');
  return document.slice(0, start) + manifestReference(schema) + document.slice(end + REFERENCE_END.length);
}
