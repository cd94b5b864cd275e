import React, { type MouseEvent, type ReactNode } from "react";
import { Link } from "gatsby";
import type { SectionId } from "../../config/site";
import { sectionHref, type ScrollIntent } from "../lib/section-links";
import { focusSection } from "../lib/scroll";

interface SectionLinkProps {
  section: SectionId;
  /** On the landing page the link scrolls in place; elsewhere it leads home to the section. */
  onLanding: boolean;
  className?: string;
  /** Runs on every activation, before the navigation (the mobile menu closes). */
  onClick?: () => void;
  children: ReactNode;
}

/** A click the page may handle itself: not a new tab, window or download. */
function isPlainClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.altKey && !event.ctrlKey && !event.shiftKey;
}

/**
 * A link to a landing-page section: an <a href> that works before and
 * without JavaScript. Once hydrated, on the landing page it also moves focus
 * to the section (the browser scrolls and records history itself); elsewhere
 * it is Gatsby's Link, a client-side navigation that carries the scroll
 * intent, so the landing page scrolls about 200 ms after it is shown.
 */
export function SectionLink({ section, onLanding, className, onClick, children }: SectionLinkProps) {
  if (!onLanding) {
    const state: ScrollIntent = { scrollTo: section };
    return (
      <Link to={sectionHref(section, false)} state={state} className={className} onClick={onClick}>
        {children}
      </Link>
    );
  }
  return (
    <a
      href={sectionHref(section, true)}
      className={className}
      onClick={(event) => {
        onClick?.();
        if (isPlainClick(event)) focusSection(section);
      }}
    >
      {children}
    </a>
  );
}
