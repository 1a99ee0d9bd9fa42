import{a,b,c,d,e}from"./chunk-HRR2RDLB.js";import"./chunk-AVA5BF7Z.js";export{e as AutoApplied,a as REVERT_MS,b as RevertAction,d as revertEntry,c as ruleApplied};
