import React, { type ReactNode } from "react";
import { Header } from "./header";
import { Footer } from "./footer";

interface LayoutProps {
  /** True on the landing page, where the header's section links scroll in place. */
  onLanding?: boolean;
  children: ReactNode;
}

export function Layout({ onLanding = false, children }: LayoutProps) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header onLanding={onLanding} />
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <Footer />
    </>
  );
}
