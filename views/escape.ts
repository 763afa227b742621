const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for HTML and MJML markup alike: with `<` and `&` escaped, user text can open no
 * tag (no `mj-*` element, `mj-include`, comment or CDATA) and can close none.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}
