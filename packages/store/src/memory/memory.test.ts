import { closeStore, storeConformance } from '../conformance/index.js';
import { MemoryStore } from './memory.js';

storeConformance({
  name: 'memory',
  persistent: false,
  async open(options) {
    const store = new MemoryStore(options);
    return { store, dispose: () => closeStore(store) };
  },
});
