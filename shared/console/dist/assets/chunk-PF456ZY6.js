import{a,b,c}from"./chunk-GWRNLNDL.js";import"./chunk-HEKZ2BR7.js";import"./chunk-SVJOZK6T.js";export{c as InsightsPanel,b as duration,a as pct};
