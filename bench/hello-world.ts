import { Elysia } from 'elysia';

/** The yardstick: Elysia's hello-world, on the port and with the process count the bench gives it. */
const port = Number(Bun.argv[2]);
const processes = Number(Bun.argv[3] ?? 1);
const reusePort = processes > 1;
new Elysia().get('/', () => 'Hello World').listen({ port, hostname: '127.0.0.1', reusePort });
if (reusePort && !Bun.argv.includes('--child')) {
  for (let i = 1; i < processes; i += 1)
    Bun.spawn([process.execPath, import.meta.path, String(port), String(processes), '--child'], { stdio: ['ignore', 'inherit', 'inherit'] });
}
