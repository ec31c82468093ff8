/**
 * A message for the next screen (after trashing a node, its parent's screen says so): kept
 * until a screen takes it, once.
 */
let pending: string | undefined;

export function flash(message: string): void {
  pending = message;
}

export function takeFlash(): string | undefined {
  const message = pending;
  pending = undefined;
  return message;
}
