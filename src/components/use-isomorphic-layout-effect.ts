import { useEffect, useLayoutEffect } from "react";

/**
 * useLayoutEffect in the browser: it runs in the same task as the render or
 * hydration it follows, so no event can fall in between. On the server, where
 * effects never run, useEffect, which React renders without a warning.
 */
export const useIsomorphicLayoutEffect = typeof window === "undefined" ? useEffect : useLayoutEffect;
