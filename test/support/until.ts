import { patience } from "./patience";

/**
 * Resolves once `condition` holds, looking every 20 ms; fails after `ms`,
 * stretched by `patience`, naming `what` (else the condition's source). For
 * anything a test waits for (a mail sent, a row written, a server up, a page
 * come to rest): tests wait on a condition, never for a fixed time. The one
 * polling loop of the tests.
 */
export async function until(condition: () => boolean | Promise<boolean>, ms = 10_000, what?: string): Promise<void> {
  const limit = patience(ms);
  const deadline = Date.now() + limit;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`${what ?? `Condition ${condition.toString()}`} not met within ${limit} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
