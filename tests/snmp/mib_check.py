#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Checks doc/ZEITGEBER-MIB.txt with a real MIB compiler, using only what
# Debian ships: pysmi (python3-pysmi) parses it with its strict SMIv2
# grammar and generates the pysnmp module, and pysnmp (python3-pysnmp4)
# loads that module, resolving every import against pysnmp's own compiled
# SNMPv2-SMI, SNMPv2-TC, SNMPv2-CONF and SNMPv2-MIB (Debian has no ASN.1
# source of those base modules: smilint and snmptranslate cannot check a
# MIB that imports them). pysmi's symbol tables for the base modules are
# built from pysnmp's compiled ones.
#
# Then every OID the agent serves (dataplane/snmp/zeitgeber_oids.h) must be
# the MIB's, and every MIB object must be served.
#
#   mib_check.py doc/ZEITGEBER-MIB.txt dataplane/snmp/zeitgeber_oids.h
import os
import re
import sys
import tempfile

from pysmi.codegen.pysnmp import PySnmpCodeGen
from pysmi.codegen.symtable import SymtableCodeGen
from pysmi.parser.smi import parserFactory
from pysmi.parser.dialect import smiV2
from pysnmp.smi import builder

BASE_MODULES = ('SNMPv2-SMI', 'SNMPv2-TC', 'SNMPv2-CONF', 'SNMPv2-MIB')


def base_symbol_tables(mib_builder):
    """pysmi symbol tables of the base modules, from pysnmp's compiled ones."""
    mib_builder.loadModules(*BASE_MODULES)
    tables = {}
    for module in BASE_MODULES:
        table = {}
        for name, obj in mib_builder.mibSymbols[module].items():
            if hasattr(obj, 'getName') and callable(obj.getName):
                try:
                    oid = tuple(obj.getName())
                except TypeError:
                    continue
                table[name] = {'type': 'MibIdentifier', 'oid': oid,
                               'origName': name}
            elif isinstance(obj, type):
                base = 'OctetString'
                for b in obj.__mro__:
                    if b.__name__ in ('Integer32', 'Integer', 'Unsigned32',
                                      'Gauge32', 'Counter32', 'Counter64',
                                      'TimeTicks'):
                        base = 'Integer32'
                        break
                    if b.__name__ == 'ObjectIdentifier':
                        base = 'ObjectIdentifier'
                        break
                table[name] = {'type': 'TypeDeclaration',
                               'syntax': ((base, ''), ''), 'origName': name}
        tables[module] = table
    return tables


def compile_mib(path, mib_builder):
    with open(path) as f:
        text = f.read()
    parser = parserFactory(**smiV2)()
    (ast,) = parser.parse(text)
    tables = base_symbol_tables(mib_builder)
    info, symtable = SymtableCodeGen().genCode(ast, tables)
    tables[info.name] = symtable
    missing = [m for m in info.imported if m not in tables]
    if missing:
        raise SystemExit('%s imports %s, which pysnmp does not ship'
                         % (path, ', '.join(missing)))
    info, code = PySnmpCodeGen().genCode(ast, tables, genTexts=True)
    return info.name, code


def served_oids(header):
    """name -> OID of every `inline constexpr Oid kName = {1, 3, ...};`."""
    with open(header) as f:
        text = f.read()
    out = {}
    for m in re.finditer(r'(\w+)\s*=\s*\{([0-9,\s]+)\}', text):
        name = m.group(1)
        if not name.startswith('k'):
            continue
        out[name[1].lower() + name[2:]] = tuple(
            int(x) for x in m.group(2).replace('\n', ' ').split(',') if x.strip())
    return out


def main():
    mib_path, header = sys.argv[1], sys.argv[2]
    mib_builder = builder.MibBuilder()
    name, code = compile_mib(mib_path, mib_builder)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, name + '.py'), 'w') as f:
            f.write(code)
        mib_builder.addMibSources(builder.DirMibSource(d))
        mib_builder.loadModules(name)  # imports resolved by pysnmp itself
    symbols = mib_builder.mibSymbols[name]
    mib = {}
    for sym, obj in symbols.items():
        if hasattr(obj, 'getName') and callable(obj.getName):
            try:
                mib[sym] = tuple(obj.getName())
            except TypeError:
                pass
    print('%s: compiled by pysmi, loaded by pysnmp: %d named OIDs'
          % (name, len(mib)))
    served = served_oids(header)
    errors = []
    for sym, oid in sorted(served.items()):
        if sym not in mib:
            errors.append('%s (%s) is served but not in the MIB'
                          % (sym, '.'.join(map(str, oid))))
        elif mib[sym] != oid:
            errors.append('%s: served at %s, the MIB says %s' % (
                sym, '.'.join(map(str, oid)), '.'.join(map(str, mib[sym]))))
    # Index columns are not-accessible: served only inside the row OIDs.
    indexes = set()
    for obj in symbols.values():
        if type(obj).__name__ == 'MibTableRow':
            indexes.update(n for _, _, n in obj.getIndexNames())
    for sym, obj in symbols.items():
        kind = type(obj).__name__
        if kind not in ('MibScalar', 'MibTableColumn', 'NotificationType'):
            continue
        if sym not in served and sym not in indexes:
            errors.append('%s (%s %s) is in the MIB but not served' % (
                sym, kind, '.'.join(map(str, mib[sym]))))
    for e in errors:
        print('error: ' + e)
    print('%d OIDs the agent serves agree with the MIB' % len(served)
          if not errors else '%d errors' % len(errors))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
