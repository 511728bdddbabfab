// Names of classes as a season's tag sets hold them, detectors' and people's mixed (species, clusters, call types):
// more than any chart has colours for, some long.

export const CLASS_NAMES = [
  'Turdus merula',
  'Erithacus rubecula',
  'Fringilla coelebs',
  'Eurasian Blackbird',
  'Cluster1',
  'Cluster2',
  'song',
  'Parus major',
  'Cyanistes caeruleus',
  'Sylvia atricapilla',
  'Phylloscopus collybita',
  'Troglodytes troglodytes',
  'Common Chiffchaff',
  'Dendrocopos major (drumming)',
  'Sitta europaea',
  'Certhia brachydactyla',
  'Regulus regulus',
  'Aegithalos caudatus',
  'Garrulus glandarius',
  'Pica pica',
  'Corvus corone',
  'Strix aluco',
  'Buteo buteo',
  'Columba palumbus',
]
