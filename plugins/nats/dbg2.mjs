const csi = await import('@wiflow/plugin-csi');
import { readdirSync } from 'node:fs';
const files = ['../csi/test-fixtures/intel/log.all_csi.6.7.6.dat','../csi/test-fixtures/picoscenes/picoscenes_iwl5300_example.csi','../csi/test-fixtures/esp32/example_data.csv','../csi/test-fixtures/nexmon/example_4366c0.pcap', ...readdirSync('/work/shared/data/real/breathing-intel5300').filter(f=>f.endsWith('.dat')).slice(0,1).map(f=>'/work/shared/data/real/breathing-intel5300/'+f), ...readdirSync('/work/shared/data/real/breathing-esp32').slice(0,1).map(f=>'/work/shared/data/real/breathing-esp32/'+f)];
for (const f of files) {
  try {
    const r = await csi.readCapture(f);
    const frames = r.frames ?? r;
    const fr = frames[0];
    console.log(f, frames.length, fr.ntx, fr.nrx, fr.nsc, fr.bandwidthHz, fr.centerFrequencyHz, Array.from(fr.subcarriers).slice(0,8).join(','), '...', Array.from(fr.subcarriers).slice(-4).join(','));
  } catch (e) { console.log(f, 'ERR', e.message.slice(0,200)); }
}
