import { measureScriptRuns } from '@quire/integrations';
import { quantile } from './bench-stats';

/*
 * `npm run bench -- scripts`: one run of an integration's script for an event, in the sandbox
 * the platform runs scripts in (QuickJS on wasm, in this process): cold (the engine compiled and
 * instantiated first, as after a start) and with the compiled module reused (every run after).
 * The floor: the same script imported and called by node itself, outside any sandbox. The
 * ratio is the sandbox's own cost (its start, the script's compilation, the bridge to the host).
 *
 * The script does what a GitBook integration's handler does with every event: reads the
 * dispatched form, parses the event and its environment, and answers.
 */

const RUNS = 50;

const SCRIPT = `export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const environment = JSON.parse(form.get('environment'));
    console.log(event.type + ' for ' + environment.integration.name);
    return new Response(JSON.stringify({ handled: event.eventId }), { headers: { 'content-type': 'application/json' } });
  },
};`;

export async function benchScripts(): Promise<void> {
  const { sandbox, floor } = await measureScriptRuns(SCRIPT, RUNS);
  const row = (label: string, value: number, floorValue: number) =>
    console.log(`${label.padEnd(58)} ${value.toFixed(2).padStart(8)} ms floor ${floorValue.toFixed(2).padStart(7)} ms ×${(value / floorValue).toFixed(1)}`);
  console.log(`script run for an event (floor: the same script in node, no sandbox; ×: sandbox / floor)`);
  row('cold (engine compiled and instantiated)', sandbox.cold, floor.cold);
  row(`module reused, p50 (n=${RUNS})`, quantile(sandbox.reused, 0.5), quantile(floor.reused, 0.5));
  row(`module reused, p95 (n=${RUNS})`, quantile(sandbox.reused, 0.95), quantile(floor.reused, 0.95));
}
