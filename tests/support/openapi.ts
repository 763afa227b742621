/**
 * The API document with every local `$ref` replaced by the schema it names, for tests that read
 * an operation's schemas directly (as a generator resolving references would).
 */
export function dereferenced<T>(document: T): T {
  const root = document as any;
  const resolve = (node: any): any => {
    if (Array.isArray(node)) return node.map(resolve);
    if (!node || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      const target = node.$ref
        .slice(2)
        .split('/')
        .reduce((at: any, key: string) => at?.[key], root);
      const { $ref: _ref, ...siblings } = node;
      return resolve({ ...target, ...siblings });
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(value)]));
  };
  return resolve(root);
}
