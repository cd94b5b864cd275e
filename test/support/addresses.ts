let counter = 0;

/**
 * An address no test has used before, on example.com: `label` says which
 * test made it, `tail` lengthens its local part where a test needs a long one.
 */
export function freshEmail(label: string, tail = ""): string {
  return `${label}.${Date.now()}.${counter++}${tail}@example.com`;
}
