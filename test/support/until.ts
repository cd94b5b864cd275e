import { patience } from "./patience";

/**
 * Resolves once `condition` holds, looking every 20 ms; fails after `ms`,
 * stretched by `patience`, with the condition's source. For what happens
 * after a reply (a mail sent, a row written): tests wait on the condition,
 * never for a fixed time.
 */
export async function until(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const limit = patience(ms);
  const deadline = Date.now() + limit;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Condition not met within ${limit} ms: ${condition.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
