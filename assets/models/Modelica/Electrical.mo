within Modelica;
package Electrical "Electrical components (bundled subset: lumped analog basics)"
  extends Modelica.Icons.Package;

  package Analog "Analog electric circuits"
    extends Modelica.Icons.Package;

    package Interfaces "Pins and partial two-pin models"
      extends Modelica.Icons.Package;
      connector Pin "Pin of an electrical component"
        Modelica.Units.SI.Voltage v "Potential at the pin";
        flow Modelica.Units.SI.Current i "Current flowing into the pin";
      end Pin;
      connector PositivePin "Positive pin"
        Modelica.Units.SI.Voltage v "Potential at the pin";
        flow Modelica.Units.SI.Current i "Current flowing into the pin";
      end PositivePin;
      connector NegativePin "Negative pin"
        Modelica.Units.SI.Voltage v "Potential at the pin";
        flow Modelica.Units.SI.Current i "Current flowing into the pin";
      end NegativePin;

      partial model OnePort "Two pins with the same current through both"
        Modelica.Units.SI.Voltage v "Voltage drop p.v - n.v";
        Modelica.Units.SI.Current i "Current from p to n";
        PositivePin p annotation(Placement(transformation(extent = {{-110, -10}, {-90, 10}})));
        NegativePin n annotation(Placement(transformation(extent = {{90, -10}, {110, 10}})));
      equation
        v = p.v - n.v;
        0 = p.i + n.i;
        i = p.i;
      end OnePort;
    end Interfaces;

    package Basic "Basic passive components"
      extends Modelica.Icons.Package;
      model Ground "Ground node"
        Modelica.Electrical.Analog.Interfaces.Pin p annotation(Placement(transformation(extent = {{-10, 90}, {10, 110}})));
      equation
        p.v = 0;
      end Ground;
      model Resistor "Ideal linear resistor"
        extends Modelica.Electrical.Analog.Interfaces.OnePort;
        parameter Modelica.Units.SI.Resistance R(start = 1) "Resistance";
      equation
        v = R * i;
      end Resistor;
      model Capacitor "Ideal linear capacitor"
        extends Modelica.Electrical.Analog.Interfaces.OnePort(v(start = 0));
        parameter Modelica.Units.SI.Capacitance C(start = 1) "Capacitance";
      equation
        i = C * der(v);
      end Capacitor;
      model Inductor "Ideal linear inductor"
        extends Modelica.Electrical.Analog.Interfaces.OnePort(i(start = 0));
        parameter Modelica.Units.SI.Inductance L(start = 1) "Inductance";
      equation
        L * der(i) = v;
      end Inductor;
    end Basic;

    package Sources "Voltage sources"
      extends Modelica.Icons.Package;
      model ConstantVoltage "Source for a constant voltage"
        extends Modelica.Electrical.Analog.Interfaces.OnePort;
        parameter Modelica.Units.SI.Voltage V(start = 1) "Value of the constant voltage";
      equation
        v = V;
      end ConstantVoltage;
      model SignalVoltage "Voltage set by a signal input"
        extends Modelica.Electrical.Analog.Interfaces.OnePort;
        Modelica.Blocks.Interfaces.RealInput v_in(unit = "V") "Voltage as an input signal";
      equation
        v = v_in;
      end SignalVoltage;
    end Sources;
  end Analog;
end Electrical;
