const TICKER_TEXT = 'Beta 1.0 — version live';
const REPEAT = 6;

export function Ticker() {
  return (
    <div className="ticker" role="marquee" aria-label={TICKER_TEXT}>
      <div className="ticker-track" aria-hidden="true">
        {Array.from({ length: REPEAT * 2 }, (_, index) => (
          <span key={index} className="ticker-item">
            {TICKER_TEXT}
          </span>
        ))}
      </div>
    </div>
  );
}
