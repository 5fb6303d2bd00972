/*
 * dwarf_raw.h: the input fuzz_dwinfo takes, which fuzz/dwarf_raw writes.
 *
 * Records, each a byte, a uleb length and that many bytes. The byte is
 * the index of the section in dwarf_raw_sections, plus DWARF_RAW_COMPRESSED
 * for an ELF SHF_COMPRESSED one (its bytes start with its Elf64_Chdr), or
 * DWARF_RAW_ADDRS for the link-time addresses to look up, 8 bytes each,
 * little-endian. Other bytes are records to skip.
 */
#ifndef FUZZ_DWARF_RAW_H
#define FUZZ_DWARF_RAW_H

#define DWARF_RAW_COMPRESSED 0x40
#define DWARF_RAW_ADDRS 0x7f

/* The sections report/dwarf/dwinfo.c reads, named as ELF names them. */
static const char *const dwarf_raw_sections[] = {
	".debug_info", ".debug_abbrev", ".debug_line", ".debug_line_str", ".debug_str",
	".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists",
};
#define DWARF_RAW_NSECTIONS (sizeof(dwarf_raw_sections) / sizeof(dwarf_raw_sections[0]))

#endif
