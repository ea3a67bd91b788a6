/** Entry point when run from source (bin/setpoint.js in an unbuilt checkout). */
import { main } from './cli.js';

await main(process.argv);
