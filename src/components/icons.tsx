import React from "react";
import { site } from "../../config/site";

/* Inline SVG icons: no image requests, they inherit currentColor. */

interface IconProps {
  className?: string;
}

export function LogoMark({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="9" fill={site.colors.brand} />
      <circle cx="12.5" cy="16" r="6" fill="none" stroke={site.colors.paper} strokeWidth="2.6" />
      <circle cx="19.5" cy="16" r="6" fill="none" stroke={site.colors.glow} strokeWidth="2.6" />
    </svg>
  );
}

/** A 24-unit line icon drawn with the current text colour. */
function LineIcon({ className, children }: IconProps & { children: React.ReactNode }) {
  return (
    <svg className={className} viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">
      <g fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        {children}
      </g>
    </svg>
  );
}

export function MatchIcon({ className }: IconProps) {
  return (
    <LineIcon className={className}>
      <path d="M12 3l1.8 4.2L18 9l-4.2 1.8L12 15l-1.8-4.2L6 9l4.2-1.8zM19 15l.9 2.1L22 18l-2.1.9L19 21l-.9-2.1L16 18l2.1-.9zM5 15l.7 1.6 1.6.7-1.6.7L5 20.6l-.7-1.6-1.6-.7 1.6-.7z" />
    </LineIcon>
  );
}

export function ChatIcon({ className }: IconProps) {
  return (
    <LineIcon className={className}>
      <path d="M4 5h16v10H9l-5 4zM8 9h8M8 12h5" />
    </LineIcon>
  );
}

export function GroupIcon({ className }: IconProps) {
  return (
    <LineIcon className={className}>
      <circle cx="9" cy="8" r="3" />
      <circle cx="17" cy="9" r="2.4" />
      <path d="M3 19c0-3.3 2.7-5.5 6-5.5s6 2.2 6 5.5M15.5 14.2c2.9-.4 5.5 1.4 5.5 4.3" />
    </LineIcon>
  );
}

export function MenuIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
      <path fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" d="M4 7h16M4 12h16M4 17h16" />
    </svg>
  );
}

export function CloseIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
      <path fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" d="M6 6l12 12M18 6L6 18" />
    </svg>
  );
}
