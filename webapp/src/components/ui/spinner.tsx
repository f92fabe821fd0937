export function Spinner() {
  return (
    <div className="spinner-container">
      <div className="spinner" role="status" aria-label="Loading" />
    </div>
  );
}
