import { MAX_SEED_APPS, seedApps } from '../../modules/catalogue/seed.service.ts';
import { CliUsageError, requireString, runtimeOf, type CliCommand } from '../command.ts';

export const seed: CliCommand = {
  name: 'seed',
  usage: 'seed --apps N',
  description: 'Add N approved demo apps (with developers, installs and reviews) to the catalogue',
  options: { apps: { type: 'string' } },
  needsDatabase: true,
  async run(input) {
    const raw = requireString(input.values, 'apps');
    const count = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(count >= 1 && count <= MAX_SEED_APPS)) throw new CliUsageError(`--apps must be a whole number from 1 to ${MAX_SEED_APPS}`);
    const started = performance.now();
    const result = await seedApps(runtimeOf(input).ctx.orm.em.fork(), count);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    input.print(
      `seeded ${result.apps} apps from ${result.developers} demo developers (${result.installs} installs, ${result.reviews} reviews) in ${seconds} s`,
    );
  },
};
