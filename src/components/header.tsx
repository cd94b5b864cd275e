import React, { useLayoutEffect, useRef, useState } from "react";
import { Link } from "gatsby";
import { site, type SectionId } from "../site";
import { goToSection } from "../lib/go-to-section";
import { LogoMark, MenuIcon } from "./icons";
import * as styles from "./header.module.css";

export const mobileMenuId = "mobile-menu";

interface HeaderProps {
  /** How a section button takes the visitor there; injectable for tests. */
  onSection?: (id: SectionId) => void;
}

export function Header({ onSection = goToSection }: HeaderProps) {
  const [open, setOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const headerRef = useRef<HTMLElement>(null);

  // A layout effect, so the listeners are there the moment the menu shows: a
  // passive effect may run a frame later, and an Escape pressed in between was lost.
  useLayoutEffect(() => {
    if (!open) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== "Escape") return;
      setOpen(false);
      toggleRef.current?.focus();
    }
    function onPointerDown(event: PointerEvent) {
      if (headerRef.current && !headerRef.current.contains(event.target as Node)) setOpen(false);
    }
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("pointerdown", onPointerDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
    };
  }, [open]);

  function choose(id: SectionId) {
    setOpen(false);
    onSection(id);
  }

  const entries = (
    <>
      <button type="button" className={`btn btn-ghost ${styles.entry}`} onClick={() => choose(site.sections.features)}>
        Features
      </button>
      <button
        type="button"
        className={`btn btn-primary ${styles.entry}`}
        onClick={() => choose(site.sections.waitlist)}
      >
        Join Waitlist
      </button>
    </>
  );

  return (
    <header ref={headerRef} className={styles.header}>
      <div className={styles.bar}>
        <Link to={site.routes.home} className={styles.brand}>
          <LogoMark />
          <span>{site.name}</span>
        </Link>
        <nav aria-label="Main" className={styles.desktopNav}>
          {entries}
        </nav>
        <button
          ref={toggleRef}
          type="button"
          className={styles.toggle}
          aria-label="Menu"
          aria-expanded={open}
          aria-controls={mobileMenuId}
          onClick={() => setOpen((isOpen) => !isOpen)}
        >
          <MenuIcon open={open} />
        </button>
      </div>
      <nav id={mobileMenuId} aria-label="Mobile" className={styles.mobileMenu} hidden={!open}>
        {entries}
      </nav>
    </header>
  );
}
