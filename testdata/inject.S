/*
 * inject.S: a program whose functions are named to break out of an SVG
 * or of folded output, for the flame graph's injection tests. gas takes
 * any bytes in a quoted symbol name, which C cannot give.
 *
 * main calls each function in turn and each spins for a while, with a
 * frame pointer, so every name shows up in a recording:
 *   </text><script>...</script>  closes the text and opens a script
 *   a"b'c&d]]>e;f                quotes, an entity start, the CDATA end and
 *                                the folded frame separator
 *   ]]><script>...</script><![CDATA[  leaves a CDATA section
 *   x" onload="...               leaves an attribute value
 * Each script would set window.__pwned or document.title if it ran. The
 * calls go through local labels: gas reads a quoted name with an escaped
 * quote in a label or a directive, not as an operand.
 */
#define SPIN 150000000

	.text

	.globl	main
	.type	main, @function
main:
	push	%rbp
	mov	%rsp, %rbp
	call	.Lf1
	call	.Lf2
	call	.Lf3
	call	.Lf4
	xor	%eax, %eax
	pop	%rbp
	ret
	.size	main, .-main

	.type	"</text><script>window.__pwned=1;document.title='pwned'</script>", @function
.Lf1:
"</text><script>window.__pwned=1;document.title='pwned'</script>":
	push	%rbp
	mov	%rsp, %rbp
	mov	$SPIN, %rcx
1:	dec	%rcx
	jnz	1b
	pop	%rbp
	ret
	.size	"</text><script>window.__pwned=1;document.title='pwned'</script>", .-"</text><script>window.__pwned=1;document.title='pwned'</script>"

	.type	"a\"b'c&d]]>e;f", @function
.Lf2:
"a\"b'c&d]]>e;f":
	push	%rbp
	mov	%rsp, %rbp
	mov	$SPIN, %rcx
1:	dec	%rcx
	jnz	1b
	pop	%rbp
	ret
	.size	"a\"b'c&d]]>e;f", .-"a\"b'c&d]]>e;f"

	.type	"]]><script>window.__pwned=3</script><![CDATA[", @function
.Lf3:
"]]><script>window.__pwned=3</script><![CDATA[":
	push	%rbp
	mov	%rsp, %rbp
	mov	$SPIN, %rcx
1:	dec	%rcx
	jnz	1b
	pop	%rbp
	ret
	.size	"]]><script>window.__pwned=3</script><![CDATA[", .-"]]><script>window.__pwned=3</script><![CDATA["

	.type	"x\" onload=\"window.__pwned=4", @function
.Lf4:
"x\" onload=\"window.__pwned=4":
	push	%rbp
	mov	%rsp, %rbp
	mov	$SPIN, %rcx
1:	dec	%rcx
	jnz	1b
	pop	%rbp
	ret
	.size	"x\" onload=\"window.__pwned=4", .-"x\" onload=\"window.__pwned=4"

	.section .note.GNU-stack, "", @progbits
