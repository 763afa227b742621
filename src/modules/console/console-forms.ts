/**
 * Form posts as the console reads them: every value a string, or a list of strings for a field
 * sent several times (checkboxes). Anything else Elysia parsed (JSON, nothing) reads as empty.
 */
export type FormFields = Record<string, string | string[] | undefined>;

export function formOf(body: unknown): FormFields {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.map(String) : value === undefined || value === null ? undefined : String(value),
    ]),
  );
}

/** One value of a form field (the first, when it was sent several times). */
export const field = (form: FormFields, name: string): string | undefined => {
  const value = form[name];
  return Array.isArray(value) ? value[0] : value;
};

export const fieldList = (form: FormFields, name: string): string[] => {
  const value = form[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
};
