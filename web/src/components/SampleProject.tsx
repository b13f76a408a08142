/**
 * The first run (docs/api.md "Presets"): a sample project made in one step, and the "try it" line its
 * page shows while the URL says `?welcome=1` — a curl that works as copied.
 */
import { api } from '../api';
import { navigate, paths } from '../router';
import { CopyLine } from './ui';

/** Creates "Sample shop" with the sample preset and opens it. */
export async function startSample(): Promise<void> {
  const p = await api.createProject('Sample shop');
  await api.createPreset(p.id, 'sample');
  navigate(`${paths.project(p.id)}?welcome=1`);
}

export function TryIt({ base }: { base: string }) {
  if (new URLSearchParams(window.location.search).get('welcome') !== '1') return null;
  return (
    <section className="banner banner-ok banner-block try-it" aria-labelledby="try-it-title">
      <h2 id="try-it-title">Your first mock is ready</h2>
      <p>
        This sample project answers already. Call it, then open <strong>Live requests</strong> to see the call arrive,
        and each endpoint to see its rules.
      </p>
      <CopyLine label="Try it" text={`curl '${base}/api/hello?name=you'`} what="curl command" testId="try-it" />
    </section>
  );
}
