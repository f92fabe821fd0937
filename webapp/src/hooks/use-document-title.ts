import { useEffect } from 'react';

/** The browser tab says which page this is ("Recolor · Atelier"), and "Atelier" again after. */
export function useDocumentTitle(name: string) {
  useEffect(() => {
    document.title = `${name} · Atelier`;
    return () => {
      document.title = 'Atelier';
    };
  }, [name]);
}
