// SuiteCloud CLI for Node.js reads this file: the SDF project lives in src/.
module.exports = {
  defaultProjectFolder: 'src',
  commands: {},
};
