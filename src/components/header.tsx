import React, { useEffect, useRef } from "react";
import { Link } from "gatsby";
import { site } from "../../config/site";
import { CloseIcon, LogoMark, MenuIcon } from "./icons";
import { SectionLink } from "./section-link";
import * as styles from "./header.module.css";

interface HeaderProps {
  /** True on the landing page, where the section links scroll in place. */
  onLanding: boolean;
}

/**
 * The fixed header. Its links work from the first paint; the mobile menu is a
 * native <details> disclosure, so it opens and closes without JavaScript and
 * the browser exposes its expanded state. Once hydrated: Escape closes it and
 * gives focus back to the toggle, choosing an entry closes it, and so does a
 * tap outside it.
 */
export function Header({ onLanding }: HeaderProps) {
  const menuRef = useRef<HTMLDetailsElement>(null);

  // Attached once and reading the menu's own state when they fire, so they work however and
  // whenever it was opened: before hydration, or an instant before an Escape.
  useEffect(() => {
    const menu = menuRef.current;
    if (!menu) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== "Escape" || !menu?.open) return;
      menu.open = false;
      menu.querySelector("summary")?.focus();
    }
    function onPointerDown(event: PointerEvent) {
      if (menu?.open && !menu.contains(event.target as Node)) menu.open = false;
    }
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("pointerdown", onPointerDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
    };
  }, []);

  function close() {
    if (menuRef.current) menuRef.current.open = false;
  }

  return (
    <header className={styles.header}>
      <div className={styles.bar}>
        <Link to={site.routes.home} className={styles.brand}>
          <LogoMark />
          <span>{site.name}</span>
        </Link>
        <nav aria-label="Main" className={styles.desktopNav}>
          <Entries onLanding={onLanding} />
        </nav>
        {/* The visitor may open it before hydration: Preact's hydration keeps its open attribute, theirs. */}
        <details ref={menuRef} className={styles.menu}>
          <summary className={styles.toggle}>
            <span className="visually-hidden">Menu</span>
            <MenuIcon className={styles.iconMenu} />
            <CloseIcon className={styles.iconClose} />
          </summary>
          <nav aria-label="Mobile" className={styles.panel}>
            <Entries onLanding={onLanding} onChoose={close} />
          </nav>
        </details>
      </div>
    </header>
  );
}

/** The header's two section links, in the bar and in the phone menu (where choosing one closes the menu). */
function Entries({ onLanding, onChoose }: HeaderProps & { onChoose?: () => void }) {
  const entries = [
    { section: site.sections.features, look: "btn-ghost", label: site.labels.features },
    { section: site.sections.waitlist, look: "btn-primary", label: site.labels.joinWaitlist },
  ];
  return (
    <>
      {entries.map(({ section, look, label }) => (
        <SectionLink
          key={section}
          section={section}
          onLanding={onLanding}
          className={`btn ${look} ${styles.entry}`}
          onClick={onChoose}
        >
          {label}
        </SectionLink>
      ))}
    </>
  );
}
