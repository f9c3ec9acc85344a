import type { Reply, Serial } from './reply.js';

/**
 * The FMC fake's deployment: the changes waiting on each device (by the user who made them) until a
 * deployment request deploys every change waiting on the devices it lists, whoever made it.
 */
export class FmcDeployment {
  /** The deployment requests accepted, in order. */
  deployments: { deviceList: string[] }[] = [];
  /** When set, deployment requests are refused (400) with this description. */
  deployRefusal: string | null = null;
  /** How long a deployment request takes to be answered (a real FMC takes a while). */
  deployDelayMs = 0;
  /** The users whose changes wait on each device, one entry per change, until deployed. */
  readonly #pending = new Map<string, string[]>();

  constructor(private readonly serial: Serial) {}

  /** Devices with changes not deployed yet. */
  pendingDevices(): string[] {
    return [...this.#pending.keys()];
  }

  addPendingChange(device: string, user: string): void {
    this.#pending.set(device, [...(this.#pending.get(device) ?? []), user]);
  }

  clearPending(device: string): void {
    this.#pending.delete(device);
  }

  /** `GET …/deployment/deployabledevices`: the devices with changes waiting. */
  deployableDevices({ answer }: Reply): void {
    const items = [...this.#pending.keys()].map((device) => ({
      type: 'DeployableDevice',
      name: device,
      device: { id: device, type: 'Device', name: device },
      canBeDeployed: true,
    }));
    answer(200, { items, paging: { offset: 0, limit: 25, count: items.length, pages: 1 } });
  }

  /** `GET …/deployment/deployabledevices/{id}/pendingchanges` (`filter=UserList:a,b`; `paging.count` is the total). */
  pendingChanges(device: string, url: URL, { answer }: Reply): void {
    const filter = /^UserList:(.*)$/.exec(url.searchParams.get('filter') ?? '');
    const users = filter === null ? null : (filter[1] ?? '').split(',').map((u) => u.trim());
    const changes = (this.#pending.get(device) ?? []).filter((user) => users === null || users.includes(user));
    const items = changes.slice(0, 1).map((user) => ({ type: 'PendingChange', user: { name: user } }));
    answer(200, { items, paging: { offset: 0, limit: 1, count: changes.length, pages: changes.length } });
  }

  /** `POST …/deployment/deploymentrequests` with `{deviceList}`. */
  deploymentRequest(payload: unknown, { answer, error }: Reply): void {
    const list = (payload as { deviceList?: unknown } | null)?.deviceList;
    if (!Array.isArray(list) || list.length === 0 || !list.every((d) => typeof d === 'string')) {
      error(400, 'deviceList is required');
      return;
    }
    if (this.deployRefusal !== null) {
      error(400, this.deployRefusal);
      return;
    }
    for (const device of list) this.#pending.delete(device);
    const accept = () => {
      this.deployments.push({ deviceList: [...list] });
      answer(202, {
        type: 'DeploymentRequest',
        metadata: { task: { id: `task-${this.serial.next()}`, type: 'TaskStatus' } },
      });
    };
    if (this.deployDelayMs > 0) setTimeout(accept, this.deployDelayMs);
    else accept();
  }
}
