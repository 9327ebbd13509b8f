/**
 * Snapshots of the whole sandbox (docs/parallel-tests.md: POST / GET /__sandbox/snapshots,
 * POST …/{name}/restore, DELETE …/{name}): save one under a name, see the list, put the
 * sandbox back to one, drop one.
 */
import type { SnapshotListView } from '../../../client/control-client.js';
import { control } from '../control-call.js';
import { card, confirmButton, Drawn, fill, h, label, mono, table, time, viewHead } from '../dom.js';
import { fail, toast } from '../toast.js';
import type { View } from '../view.js';

type Snapshot = SnapshotListView['snapshots'][number];

const size = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;

export function snapshotsView(): View {
  const drawn = new Drawn();
  const list = h('div', { id: 'snapshot-list' });
  const count = h('span', { class: 'muted' });
  const name = h('input', {
    id: 'snapshot-name',
    class: 'wide mono',
    placeholder: 'before-checkout-test',
    maxlength: 64,
    required: true,
  });

  const save = (event: SubmitEvent) => {
    event.preventDefault();
    const wanted = name.value.trim();
    if (!wanted) return;
    control((c) => c.snapshots.save(wanted))
      .then((saved) => {
        toast(`${saved.replaced ? 'Replaced' : 'Saved'} snapshot ${saved.snapshot.name}`);
        name.value = '';
        return refresh();
      })
      .catch(fail);
  };

  async function refresh() {
    const data = await control((c) => c.snapshots.list());
    if (!drawn.changed(data)) return;
    count.textContent = `${data.snapshots.length} of at most ${data.max}`;
    fill(
      list,
      table(
        ['Name', 'Saved at (real time)', 'Sandbox clock', 'Size', ''],
        data.snapshots.map((x) => snapshotRow(x, refresh)),
        'No snapshots yet: save one above, then restore it whenever a test needs that state again.',
      ),
    );
  }

  return {
    every: 2,
    enter(root) {
      drawn.forget();
      fill(
        root,
        viewHead('Snapshots', 'GET / POST /__sandbox/snapshots'),
        card(
          'Save the whole sandbox',
          null,
          h(
            'p',
            { class: 'muted' },
            'Store, clocks, armed scenarios and journal, kept in memory under a name. ',
            'Saving a name again replaces it. Restore puts every partner back, the clock too.',
          ),
          h(
            'form',
            { class: 'inline', id: 'snapshot-form', onsubmit: save },
            label('Name', name),
            h('button', { type: 'submit', class: 'primary', id: 'snapshot-save' }, 'Save snapshot'),
          ),
        ),
        card('Snapshots', count, list),
        h(
          'p',
          { class: 'muted' },
          'A snapshot is the whole sandbox; to take one partner elsewhere, use ',
          mono('Download bundle'),
          ' in Partners.',
        ),
      );
      return refresh();
    },
    refresh,
  };
}

/** A snapshot's row, with its Restore and Delete buttons (then `refresh`). */
function snapshotRow(s: Snapshot, refresh: () => Promise<void>): HTMLTableRowElement {
  const restore = confirmButton(
    'Restore',
    'Really restore?',
    () =>
      control((c) => c.snapshots.restore(s.name))
        .then(() => toast(`Restored the sandbox to ${s.name}`))
        .catch(fail),
    { class: 'small danger', dataset: { restore: s.name } },
  );
  const drop = confirmButton(
    'Delete',
    'Really delete?',
    () =>
      control((c) => c.snapshots.delete(s.name))
        .then(() => {
          toast(`Deleted snapshot ${s.name}`);
          return refresh();
        })
        .catch(fail),
    { class: 'small', dataset: { delete: s.name } },
  );
  return h(
    'tr',
    { dataset: { snapshot: s.name } },
    h('td', { class: 'mono name' }, s.name),
    h('td', { class: 'muted' }, time(s.saved_at)),
    h('td', { class: 'mono' }, time(s.clock).slice(0, 19)),
    h('td', null, size(s.size_bytes)),
    h('td', null, h('div', { class: 'toolbar' }, restore, drop)),
  );
}
