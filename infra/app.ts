/** CDK entry point (`cdk.json` runs it with tsx). */
import { createShardwalApp } from './shardwal-app.js';

createShardwalApp();
