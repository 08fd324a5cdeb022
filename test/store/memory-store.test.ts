import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { objectStoreContract } from './contract.js';

objectStoreContract('MemoryObjectStore', async () => ({
  store: new MemoryObjectStore(),
  cleanup: async () => {},
}));
