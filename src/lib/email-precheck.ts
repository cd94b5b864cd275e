/**
 * The client-side check of spec section 5: an empty value or one without an
 * "@" is rejected. Anything the browser's own `type="email"` check rejects is
 * rejected as well, so visitors see one message whatever the browser thinks.
 * The signup endpoint does the authoritative check; this only saves a round trip.
 */
export function isAcceptableEmail(value: string, input?: Pick<HTMLInputElement, "validity"> | null): boolean {
  const trimmed = value.trim();
  if (trimmed === "" || !trimmed.includes("@")) return false;
  if (input && input.validity.typeMismatch) return false;
  return true;
}
