// The engine's state, always on screen (never a blank canvas, never a silent fallback), and
// the read-only notice of a link whose id did not check.
import { type EngineState, bannerText } from "../engine/engine";

export function Banner({ engine, readOnly, onLeaveReadOnly }: { engine: EngineState; readOnly: string | null; onLeaveReadOnly(): void }) {
  return (
    <>
      <div id="engine-banner" className={`banner banner-${engine.kind}`} role="status">
        {bannerText(engine)}
      </div>
      {readOnly !== null && (
        <div id="read-only-banner" className="banner banner-warning" role="alert">
          Read-only: {readOnly}{" "}
          <button id="leave-read-only" onClick={onLeaveReadOnly}>
            Edit a copy
          </button>
        </div>
      )}
    </>
  );
}
