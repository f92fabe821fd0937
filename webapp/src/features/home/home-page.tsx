const CATEGORIES: { title: string; note?: string; description: string }[] = [
  { title: 'Editorial Hub', description: 'Editorial imagery from catalog shots.' },
  { title: 'Ecommerce Studio', description: 'Catalog, model and product assets at scale.' },
  { title: 'Design Lab', description: 'Recolour, refabric, reshape and explore designs.' },
  { title: 'Commercial Solutions', note: 'Private', description: 'Tools built with selected partners.' },
  { title: 'Playground', note: 'Live soon', description: 'Experiments from the lab.' },
];

export function HomePage() {
  return (
    <section className="home-page">
      <h1>The fashion industry&apos;s AI atelier</h1>
      <ul className="category-list">
        {CATEGORIES.map((category) => (
          <li key={category.title} className="category-card">
            <h2>
              {category.title}
              {category.note ? <span className="badge">{category.note}</span> : null}
            </h2>
            <p className="muted">{category.description}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
