# SPDX-License-Identifier: MIT
# spool.bash - bash completion for spool, installed as
# PREFIX/share/bash-completion/completions/spool (make install).
#
# Everything it offers is read from spool itself when Tab is pressed, so it
# cannot drift from the binary: the commands from `spool --help`, a
# command's options (and which of them take a value) from `spool CMD
# --help`, the probe spec kinds (func:, var:, args:, ...) from the specs
# list of `spool probe --help`. Values it knows: trace directories for -o,
# -t and the TRACE_DIR argument (directories holding a spool trace come
# first), the keys of --sort, --on-full, --mode, --entries, --weight,
# process ids for -p. After `--` (or the program of a command that runs
# one) it completes a command name, then files. Needs no bash-completion
# helpers (_init_completion), only bash.

# _spool_help ARGS...: the help text of the spool being completed.
_spool_help()
{
	local bin=${COMP_WORDS[0]}
	# A spool typed by path (./build/spool) is asked; else the one in PATH.
	[[ $bin == */* && -x $bin ]] || bin=spool
	"$bin" "$@" --help 2>/dev/null
}

# _spool_trace_dirs CUR: directories under CUR's directory; those that are
# spool traces (a metadata file spool wrote) are listed first.
_spool_trace_dirs()
{
	local d traces=() others=()
	while IFS= read -r d; do
		if [[ -f $d/metadata ]] && head -c 64 "$d/metadata" 2>/dev/null | grep -q 'spool trace'; then
			traces+=("$d")
		else
			others+=("$d")
		fi
	done < <(compgen -d -- "$1")
	COMPREPLY=("${traces[@]}" "${others[@]}")
	# (bash 4.4+: keep that order on screen too)
	compopt -o nosort 2>/dev/null
	compopt -o filenames 2>/dev/null
}

_spool()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd help i line opts valued word names
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	if ((COMP_CWORD == 1)); then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--help --version' -- "$cur"))
			return
		fi
		COMPREPLY=($(compgen -W "$(_spool_help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	if [[ $cmd == help ]]; then
		((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$(_spool_help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')" -- "$cur"))
		return
	fi

	# After `--`: the program (a command name or a file), then its arguments.
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			if ((i == COMP_CWORD - 1)); then
				COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			compopt -o filenames 2>/dev/null
			return
		fi
	done

	help=$(_spool_help "$cmd")
	# Option lines: indented at most 8 columns, starting with '-'. An option
	# takes a value when an upper-case word follows it ("-o, --output DIR").
	opts=$(sed -n 's/^ \{1,8\}\(-.*\)/\1/p' <<<"$help" | grep -o -- '--\?[A-Za-z][-A-Za-z0-9]*' | sort -u)
	valued=" "
	while read -r line; do
		# "-o, --output DIR  text" or "--ring-size SIZE text": the names
		# before the first word that is not an option; valued when that
		# word is a metavariable (upper case)
		names=
		for word in ${line//,/ }; do
			if [[ $word == -* ]]; then
				names+=" $word"
				continue
			fi
			[[ $word =~ ^[A-Z][A-Z_]*$ ]] && valued+="$names "
			break
		done
	done < <(sed -n 's/^ \{1,8\}\(-[^ ].*\)/\1/p' <<<"$help")
	valued+=" "

	if [[ $valued == *" $prev "* ]]; then
		case $prev in
		-e | --probe)
			if [[ $cur != *:* ]]; then
				COMPREPLY=($(compgen -W "$(sed -n '/^specs:/,/^$/p' <<<"$help" |
					grep -o '^  [a-z]\+:' | sed 's/ //g' | sort -u)" -- "$cur"))
				compopt -o nospace 2>/dev/null
			fi
			;;
		-w | --write)
			# spool path -w, report -w and export -w write a file
			COMPREPLY=($(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
			;;
		-o | --output | -t | --trace-dir | --debug-dir | --trace-out)
			# the old spelling of report's and export's -w still writes a file;
			# elsewhere -o is a trace
			if [[ $cmd == report || $cmd == export ]] && [[ $prev == -o || $prev == --output ]]; then
				COMPREPLY=($(compgen -f -- "$cur"))
				compopt -o filenames 2>/dev/null
			else
				_spool_trace_dirs "$cur"
			fi
			;;
		--sysroot)
			# the board's root, or a copy of its files
			COMPREPLY=($(compgen -d -- "$cur"))
			compopt -o filenames 2>/dev/null
			;;
		--sort) COMPREPLY=($(compgen -W 'wait acq contended hold name' -- "$cur")) ;;
		--on-full) COMPREPLY=($(compgen -W 'wait drop' -- "$cur")) ;;
		--mode) COMPREPLY=($(compgen -W 'serial sync' -- "$cur")) ;;
		--entries) COMPREPLY=($(compgen -W 'auto finstrument probes' -- "$cur")) ;;
		--weight) COMPREPLY=($(compgen -W 'time calls' -- "$cur")) ;;
		-p | --pid)
			COMPREPLY=($(compgen -W "$(cd /proc 2>/dev/null && compgen -G '[0-9]*')" -- "$cur"))
			;;
		*)
			COMPREPLY=($(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
			;;
		esac
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts --" -- "$cur"))
		return
	fi
	case $cmd in
	report | export | info | decode | replay | recover)
		_spool_trace_dirs "$cur"
		;;
	path)
		_spool_trace_dirs "$cur"
		COMPREPLY+=($(compgen -c -- "$cur"))
		;;
	locks | record | probe)
		# the first non-option word is the program
		COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		;;
	*)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		;;
	esac
}

complete -F _spool spool
