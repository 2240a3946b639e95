// Wrong usage the declarations reject: each line below must fail to compile (`@ts-expect-error` fails
// the build when its line compiles), so that the configuration types stay as strict as the core.
import { load } from '../../web/memplan.js';
import type { Config } from '../../web/memplan.js';

const mp = await load();

// @ts-expect-error a misspelt key of the configuration (parallel.gpu for parallel.gpus)
mp.estimate({ parallel: { gpu: 8 } });
// @ts-expect-error an engine the schema does not list
mp.estimate({ mode: 'infer', infer: { engine: 'vllmm' } });
// @ts-expect-error text where the schema declares a number
mp.estimate({ train: { seq_len: '4096' } });
// @ts-expect-error a run mode that is not train or infer
const serve: Config = { mode: 'serve' };
// @ts-expect-error a boolean field given as text
mp.estimate({ train: { flash_attention: 'yes' } });
// @ts-expect-error the options object's key is hfConfig
mp.estimate({}, { hf_config: '{}' });
// @ts-expect-error modelStateBytes takes three numbers
mp.modelStateBytes(7e9, 8);
// @ts-expect-error a plan request names its GPU by catalogue id (text)
mp.plan({ config: {}, gpu: 80e9 });
// @ts-expect-error a plan request's configuration is a Config too
mp.plan({ config: { parallel: { tp: 'two' } }, gpu: 'h100-sxm-80gb' });
const r = mp.estimate({});
// @ts-expect-error gpu is absent without gpu.memory_bytes: read it as r.gpu?.fits
r.gpu.fits;
// @ts-expect-error per_gpu has no part named "kv"
r.per_gpu.kv;
// @ts-expect-error the result's stored documents are frozen (readonly)
mp.presetNames()[0] = { id: 'x', name: 'x', source: 'x' };
// @ts-expect-error the echo's gpu.memory_bytes is null when not given
const capacity: number = r.config.gpu.memory_bytes;
export { serve, capacity };
